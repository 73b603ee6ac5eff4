use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    #[tfvalue(pattern = "^(ssd|hdd$")]
    kind: String,
}

fn main() {}
