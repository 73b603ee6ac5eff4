use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(computed, refine(min = 10, max = -1))]
    version: Unknown<Option<i64>>,
}

fn main() {}
