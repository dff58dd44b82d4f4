console.log("hello from sbx");
