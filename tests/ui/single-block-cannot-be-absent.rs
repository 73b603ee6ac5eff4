use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    size_gb: u32,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block)]
    boot: Disk,
}

fn main() {}
