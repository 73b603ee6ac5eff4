use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Entry {
    #[tfvalue(optional, computed, default = ONE_HOUR)]
    ttl: Unknown<Option<u32>>,
}

fn main() {}
