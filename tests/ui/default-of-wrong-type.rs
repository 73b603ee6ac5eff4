use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(optional, computed, default = "an hour")]
    ttl: Unknown<Option<u32>>,
}

fn main() {}
