//! Claude Code transcripts: the older layouts and bad input, on small hand-made fixtures.

use super::super::{File, read};
