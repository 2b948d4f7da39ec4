//! Guest eval under small limits, in one long-lived realm recreated after a disposal: every
//! input ends `Ok` or in a typed `SandboxError`, and the realm still serves the next entry.
//! The logic lives in `tests/shared/fuzz_harness.rs`, which `tests/fuzz_regressions.rs`
//! replays every committed crasher through.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/shared/fuzz_harness.rs"]
mod fuzz_harness;

fuzz_target!(|data: &[u8]| fuzz_harness::eval(data));
