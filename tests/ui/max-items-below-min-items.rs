use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    size_gb: u32,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block, min_items = 2, max_items = 1)]
    disk: Vec<Disk>,
}

fn main() {}
