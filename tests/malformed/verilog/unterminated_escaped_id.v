module esc(a, y);
  input a;
  output y;
  not g1(y, \unterminated