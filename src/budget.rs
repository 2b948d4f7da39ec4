//! The per-call execution meter: an instruction budget and a wall-clock deadline.
//!
//! Boa counts instructions only when built with `fuzz`; our patch (patches/) adds a refill
//! hook so the count can be handed out in slices. Each refill checks the clock, so a
//! deadline is enforced within one slice of bytecode. Native builtins that run long
//! without executing bytecode are not covered here: the worker's hard kill is the backstop.
//! The same check enforces the worker's memory ceiling inside a step, so a guest cannot
//! keep allocating from bytecode until its deadline.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use boa_engine::Context;
use web_time::{Duration, Instant};

use crate::error::Limit;

/// Instructions between clock checks. Small enough for a prompt deadline, large enough
/// that reading the clock costs well under 1% of execution.
pub const SLICE: u64 = 20_000;

#[derive(Default)]
struct State {
    remaining: Cell<u64>,
    deadline: Cell<Option<Instant>>,
    tripped: Cell<Option<Limit>>,
}

/// A meter shared between a realm and its context's refill hook.
#[derive(Clone, Default)]
pub struct Meter {
    state: Rc<State>,
}

impl Meter {
    /// Starts metering a call: `instructions` in total, until `timeout` from now.
    pub fn arm(&self, context: &mut Context, instructions: u64, timeout: Duration) {
        self.state.tripped.set(None);
        self.state.deadline.set(Instant::now().checked_add(timeout));
        let first = instructions.min(SLICE);
        self.state.remaining.set(instructions - first);
        let state = Rc::clone(&self.state);
        context.set_instruction_budget(
            usize::try_from(first).unwrap_or(usize::MAX),
            Some(Rc::new(move || refill(&state))),
        );
    }

    /// Stops metering: nothing may run until the next `arm`.
    pub fn disarm(&self, context: &mut Context) {
        self.state.remaining.set(0);
        self.state.deadline.set(None);
        context.set_instruction_budget(0, None);
    }

    /// Which limit stopped the last call, if the meter did.
    pub fn tripped(&self) -> Option<Limit> {
        self.state.tripped.get()
    }
}

/// Bytes of linear memory past which every metered entry of this instance stops (0: none).
/// One per wasm instance, because the memory is: the worker sets it from `memoryLimitMb`.
static MEMORY_CEILING: AtomicU64 = AtomicU64::new(0);

/// Sets the instance's memory ceiling in bytes; 0 removes it.
pub fn set_memory_ceiling(bytes: u64) {
    MEMORY_CEILING.store(bytes, Ordering::Relaxed);
}

/// The instance's linear memory in bytes. Natively there is no such memory to cap.
fn memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size::<0>() as u64 * 65_536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// Whether `size` bytes of memory pass `ceiling` (0: no ceiling).
fn over_ceiling(size: u64, ceiling: u64) -> bool {
    ceiling != 0 && size > ceiling
}

fn refill(state: &State) -> Option<usize> {
    // Invariant: every slice of guest bytecode starts with a deadline check, so a
    // bytecode loop overshoots the deadline by at most one slice.
    if let Some(deadline) = state.deadline.get()
        && Instant::now() >= deadline
    {
        state.tripped.set(Some(Limit::Deadline));
        return None;
    }
    // Invariant: no slice starts with memory past the ceiling. Wasm memory never shrinks,
    // so the step ends and the worker replaces the instance (worker.js `run`).
    if over_ceiling(memory_bytes(), MEMORY_CEILING.load(Ordering::Relaxed)) {
        state.tripped.set(Some(Limit::Memory));
        return None;
    }
    let remaining = state.remaining.get();
    if remaining == 0 {
        state.tripped.set(Some(Limit::Instructions));
        return None;
    }
    let slice = remaining.min(SLICE);
    state.remaining.set(remaining - slice);
    usize::try_from(slice).ok()
}

#[cfg(test)]
mod tests {
    use super::over_ceiling;

    #[test]
    fn ceiling_table() {
        // (size, ceiling, stops)
        let rows = [
            (0, 0, false),
            (u64::MAX, 0, false),
            (64 << 20, 64 << 20, false),
            ((64 << 20) + 1, 64 << 20, true),
            (1 << 32, 512 << 20, true),
        ];
        for (size, ceiling, stops) in rows {
            assert_eq!(over_ceiling(size, ceiling), stops, "{size} vs {ceiling}");
        }
    }
}
