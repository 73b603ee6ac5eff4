use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(required, use_state_for_unknown)]
    key: Unknown<String>,
}

fn main() {}
