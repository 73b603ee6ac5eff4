use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(optional, refine(not_null))]
    id: Unknown<Option<String>>,
}

fn main() {}
