//! `lineage replay` of `acp` traces: the Client's view of the stream (DESIGN.md).

use crate::{Exit, ReplayArgs};

pub(crate) fn run(args: &ReplayArgs) -> Exit {
    eprintln!(
        "error: {}: replaying `acp` traces is not supported yet",
        args.trace.display()
    );
    Exit::Usage
}
