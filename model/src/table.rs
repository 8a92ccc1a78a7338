//! Placeholder: the concurrent request table (see issue 4).
