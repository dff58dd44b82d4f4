greeting="hello from sbx"
echo "${greeting}"
