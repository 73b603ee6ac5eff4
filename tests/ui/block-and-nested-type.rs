use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    size_gb: u32,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block, nested_type)]
    disk: Vec<Disk>,
}

fn main() {}
