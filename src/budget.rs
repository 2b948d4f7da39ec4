//! The per-call execution meter: an instruction budget and a wall-clock deadline.
//!
//! Boa counts instructions only when built with `fuzz`; our patch (patches/) adds a refill
//! hook so the count can be handed out in slices. Each refill checks the clock, so a
//! deadline is enforced within one slice of bytecode. Native builtins that run long
//! without executing bytecode are not covered here: the worker's hard kill is the backstop.

use std::cell::Cell;
use std::rc::Rc;

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

fn refill(state: &State) -> Option<usize> {
    // Invariant: every slice of guest bytecode starts with a deadline check, so a
    // bytecode loop overshoots the deadline by at most one slice.
    if let Some(deadline) = state.deadline.get()
        && Instant::now() >= deadline
    {
        state.tripped.set(Some(Limit::Deadline));
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
