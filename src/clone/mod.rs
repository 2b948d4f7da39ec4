//! The structured-clone boundary, both directions, over [`crate::value::Graph`].

pub mod fast;
pub mod from_guest;
pub mod guest_tape;
pub mod host_tape;
pub mod tape;
#[cfg(test)]
mod test_rng;
pub mod to_guest;

pub use from_guest::{Captured, CloneError, from_guest};
pub use to_guest::{to_guest, to_guest_args};
