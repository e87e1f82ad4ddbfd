x = "bom"
if x: y = 1
