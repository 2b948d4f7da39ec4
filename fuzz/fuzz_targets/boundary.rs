//! Host → guest boundary values: a structured graph (well-formed or not) → `to_guest` into a
//! realm → `from_guest` back out; malformed graphs are typed errors and a second crossing is a
//! fixpoint.
//! The logic lives in `tests/shared/fuzz_harness.rs`, which `tests/fuzz_regressions.rs`
//! replays every committed crasher through.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/shared/fuzz_harness.rs"]
mod fuzz_harness;

fuzz_target!(|data: &[u8]| fuzz_harness::boundary(data));
