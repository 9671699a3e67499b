//! Helpers shared by the stream tests.
#![allow(dead_code)] // each test binary uses some of them

use std::convert::Infallible;
use std::io::{self, Read, Write};
use tine::stream::Batch;

/// A reader that returns small, uneven reads (1 to 37 bytes).
pub struct Trickle<'a> {
    pub data: &'a [u8],
    pub seed: u64,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let want = 1 + (self.seed >> 33) as usize % 37;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

pub fn lines(n: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..n {
        writeln!(data, "record {i} {}", "x".repeat(i % 13)).unwrap();
    }
    data
}

pub fn echo(batch: &Batch<'_>, out: &mut Vec<u8>) -> Result<(), Infallible> {
    out.extend_from_slice(batch.bytes());
    Ok(())
}
