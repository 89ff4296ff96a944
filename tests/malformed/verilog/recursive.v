module ping(a);
  input a;
  pong u(a);
endmodule

module pong(a);
  input a;
  ping v(a);
endmodule

module top(a);
  input a;
  ping p(a);
endmodule
