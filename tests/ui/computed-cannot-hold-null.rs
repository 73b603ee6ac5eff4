use tfvalue::{TfValue, Unknown};

// Terraform sends a computed attribute as null in configuration: `Unknown<String>` fails
// to decode every config.
#[derive(TfValue)]
struct Server {
    #[tfvalue(computed)]
    id: Unknown<String>,
}

fn main() {}
