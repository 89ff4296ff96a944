module sel(a, y);
  input [3:0] a;
  output y;
  not g(y, a[4]);
endmodule
