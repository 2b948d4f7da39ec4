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

/// The most entries a list or table kept between crossings keeps room for, so a huge
/// value's room goes with it (a few hundred KB at most for all of a thread's lists).
pub(crate) const KEPT_MAX: usize = 1 << 12;

/// A list or table kept between crossings: emptied after each, with the room past `max`
/// entries given back.
pub(crate) trait Emptied {
    fn empty(&mut self, max: usize);
}

impl<T> Emptied for Vec<T> {
    fn empty(&mut self, max: usize) {
        self.clear();
        self.shrink_to(max);
    }
}

impl<K: Eq + std::hash::Hash, V, S: std::hash::BuildHasher> Emptied
    for std::collections::HashMap<K, V, S>
{
    fn empty(&mut self, max: usize) {
        self.clear();
        self.shrink_to(max);
    }
}
