//! A small seeded generator for the boundary's randomised tests, so a failure names its seed.

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}
