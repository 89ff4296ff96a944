module attr(a, y);
  input a;
  output y;
  (* keep = 1
  not g1(y, a);
endmodule
