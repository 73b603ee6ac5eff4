//! `#[derive(TfValue)]` mistakes are compile errors at the right span (trybuild).
//!
//! The `.stderr` files are rustc's output, which changes between compiler versions:
//! regenerate them with `TRYBUILD=overwrite` on the pinned toolchain and read each one.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
