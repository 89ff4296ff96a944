module stmt_eof(a, b, y);
  input a, b;
  output y;
  assign y = a &
