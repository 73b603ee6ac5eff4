use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(computed, use_state_for_unknwn)]
    id: Unknown<Option<String>>,
}

fn main() {}
