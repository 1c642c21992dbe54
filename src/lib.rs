//! gleaner: a daemon that turns RSS/Atom/JSON feeds into a database of clean article bodies
//! and images. `ARCHITECTURE.md` describes the stages and the data between them.

pub mod cli;
pub mod eval;
pub mod extract;
pub mod tidy;
