//! The worker protocol: a sequence of (mostly well-formed) messages → `Dispatcher::handle` with
//! timer ticks between; every message gets exactly one answer carrying its id.
//! The logic lives in `tests/shared/fuzz_harness.rs`, which `tests/fuzz_regressions.rs`
//! replays every committed crasher through.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/shared/fuzz_harness.rs"]
mod fuzz_harness;

fuzz_target!(|data: &[u8]| fuzz_harness::protocol(data));
