//! Waymark data-pack builder (issue 3).
