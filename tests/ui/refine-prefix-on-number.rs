use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(computed, refine(prefix = "1"))]
    version: Unknown<Option<u64>>,
}

fn main() {}
