//! The command line: `--len N --bodies B --steps S`.

/// The usage line printed with an argument error.
pub const USAGE: &str = "usage: tine-mpi [--len ELEMENTS] [--bodies BODIES] [--steps STEPS]";

/// The problem sizes.
pub struct Args {
    /// Elements of each vector in the dot product.
    pub len: usize,
    /// Bodies in the N-body simulation.
    pub bodies: usize,
    /// Time steps of the N-body simulation.
    pub steps: usize,
}

/// The dot product stays exact while its sum stays below 2^53: each
/// product is below 2^19 in magnitude, so 2^33 elements are safe.
const MAX_LEN: usize = 1 << 33;

/// `MPI_Allgatherv` counts are C ints, three per body.
const MAX_BODIES: usize = i32::MAX as usize / 3;

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut parsed = Args {
            len: 1 << 22,
            bodies: 1024,
            steps: 20,
        };
        while let Some(flag) = args.next() {
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let number: usize = value
                .parse()
                .map_err(|_| format!("{flag} {value}: not a non-negative integer"))?;
            match flag.as_str() {
                "--len" if (1..=MAX_LEN).contains(&number) => parsed.len = number,
                "--len" => return Err(format!("--len must be in 1..={MAX_LEN}")),
                "--bodies" if (2..=MAX_BODIES).contains(&number) => parsed.bodies = number,
                "--bodies" => return Err(format!("--bodies must be in 2..={MAX_BODIES}")),
                "--steps" => parsed.steps = number,
                _ => return Err(format!("unknown argument {flag}")),
            }
        }
        Ok(parsed)
    }
}
