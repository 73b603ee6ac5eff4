import {
  to = kv_entry.greeting
  id = "greeting"
}
