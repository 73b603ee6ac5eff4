use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    size_gb: u32,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block = "lists")]
    disk: Vec<Disk>,
}

fn main() {}
