{
  "targets": [
    {
      "target_name": "fd_dup",
      "sources": ["fd_dup.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
