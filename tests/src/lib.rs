//! End-to-end tests of mcp-bindgen live in `tests/`.
