//! In-process benchmarks (filled in with the benchmark work).

fn main() {}
