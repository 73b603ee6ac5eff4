use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    #[tfvalue(min_length = 1)]
    size_gb: u32,
}

fn main() {}
