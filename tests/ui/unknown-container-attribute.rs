use tfvalue::TfValue;

#[derive(TfValue)]
#[tfvalue(versoin = 1)]
struct Server {
    name: String,
}

fn main() {}
