print("hello from sbx")
