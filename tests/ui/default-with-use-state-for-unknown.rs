use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(optional, computed, default = 3600, use_state_for_unknown)]
    ttl: Unknown<Option<u32>>,
}

fn main() {}
