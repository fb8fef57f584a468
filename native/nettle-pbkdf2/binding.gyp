{
  "targets": [
    {
      "target_name": "nettle_pbkdf2",
      "sources": ["nettle-pbkdf2.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-function"],
      "libraries": ["-lnettle"]
    }
  ]
}
