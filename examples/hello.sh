echo "hello from sbx"
