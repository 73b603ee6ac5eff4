use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Disk {
    #[tfvalue(one_of = ["1", "2"])]
    size_gb: Unknown<u32>,
}

fn main() {}
