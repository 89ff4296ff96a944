module bad_range(a, y);
  input [7:] a;
  output y;
endmodule
