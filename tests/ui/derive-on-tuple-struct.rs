use tfvalue::TfValue;

#[derive(TfValue)]
struct Server(String, u16);

fn main() {}
