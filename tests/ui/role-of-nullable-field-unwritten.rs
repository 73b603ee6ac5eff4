use tfvalue::{TfValue, Unknown};

// The old way to declare the API-assigned id: the wrappers used to make it optional and
// computed, so users could set it. Now the role must be written.
#[derive(TfValue)]
struct Server {
    id: Unknown<Option<String>>,
}

fn main() {}
