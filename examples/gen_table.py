# A generator run under sbx by examples/Makefile: writes squares.csv into
# the workspace; `sbx run -o DIR` copies it out.
with open("squares.csv", "w") as f:
    f.write("n,square\n")
    for n in range(1, 11):
        f.write(f"{n},{n * n}\n")
print("wrote squares.csv")
