use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(computed, refine(not_nul))]
    id: Unknown<Option<String>>,
}

fn main() {}
