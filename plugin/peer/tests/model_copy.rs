//! `src/requests_model.rs` is the model, handler and provider of
//! `plugin/benches/requests.rs`, verbatim: both benches measure the same provider.

#[test]
fn the_model_is_the_one_of_the_requests_bench() {
    let bench = include_str!("../../benches/requests.rs");
    let copy = include_str!("../src/requests_model.rs");
    let start = bench
        .find("/// A rule of an instance")
        .expect("the model's first line in requests.rs");
    let end = bench
        .find("/// One request's values")
        .expect("the line after the provider in requests.rs");
    assert_eq!(
        copy,
        &bench[start..end],
        "src/requests_model.rs differs from plugin/benches/requests.rs; copy it again: \
         sed -n '/^\\/\\/\\/ A rule of an instance/,/^\\/\\/\\/ One request/p' ../benches/requests.rs | sed '$d'"
    );
}
