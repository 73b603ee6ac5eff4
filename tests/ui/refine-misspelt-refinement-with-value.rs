use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(computed, refine(not_null, prefx = "kv-"))]
    id: Unknown<Option<String>>,
}

fn main() {}
