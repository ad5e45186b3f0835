//! A deterministic generator (a 64-bit linear congruential one, Knuth's MMIX constants) for
//! the benches that write their own text, so every run measures the same input.

/// The generator's state.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `0..n` (`n` above 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}
