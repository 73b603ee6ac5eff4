// A type that does not convert into a Value cannot go into `value!`: the error says what
// can, and how to put a Serialize type in.
use tfvalue::value;

struct Disk {
    size: u64,
}

fn main() {
    let disk = Disk { size: 10 };
    let _ = disk.size;
    let _ = value!({ "disk": disk });
}
