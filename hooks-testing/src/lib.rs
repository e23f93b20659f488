//! The test kit for hook authors: event recorders, coordinators, mock tools and the
//! behavioural suite every hook module runs.
//!
//! The kit is not implemented yet; the kernel it builds on is re-exported here.

pub use hooks_core as core;
