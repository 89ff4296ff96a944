module comment_eof(a, y);
  input a;
  output y;
  not g1(y, a);
  /* this comment is never closed
  endmodule
