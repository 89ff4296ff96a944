`define WIDTH 8
module mac(a);
  input [`WIDTH-1:0] a;
endmodule
